"""The emulator's prefix cache: DeepSeek's 64-token blocks, evicted least-recently-used.

A real provider keeps a bounded number of cached prefixes and drops the ones not used for a while;
an unbounded cache would make every cache-hit figure an upper bound (an old prefix a strategy comes
back to, e.g. after `/compact undo`, would always still be there). DeepSeek does not publish its
bound; the default (DEFAULT_CAPACITY) is eight times its largest window, so no test's session of
today reaches it, and `capacity=None` keeps everything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

BLOCK = 64  # DeepSeek's cache unit, in tokens
DEFAULT_CAPACITY = 8_000_000  # tokens


class PrefixCache:
    """Which prompts' prefixes are cached, in whole blocks.

    Each block's hash chains the ones before it, so the set of hashes holds every prefix seen; a
    request touches its blocks (the hit ones and the ones it adds), the least recently touched go
    first once more than `capacity` tokens are held."""

    def __init__(self, capacity: int | None = DEFAULT_CAPACITY, block: int = BLOCK) -> None:
        self.capacity = capacity
        self.block = block
        self.evicted = 0  # blocks dropped so far
        self._blocks: OrderedDict[int, None] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._blocks) * self.block  # tokens held

    def hits(self, ids: list[int], model: str = "") -> int:
        """Tokens of `ids` served from the cache (whole blocks of its longest cached prefix); the
        prompt's blocks are cached from now on. A model's cache is its own: another model's requests
        never hit it."""
        chain = hash(model)
        hashes = []
        for i in range(0, len(ids) - self.block + 1, self.block):
            chain = hash((chain, tuple(ids[i : i + self.block])))
            hashes.append(chain)
        with self._lock:
            hit = 0
            while hit < len(hashes) and hashes[hit] in self._blocks:
                hit += 1
            for h in hashes:
                self._blocks[h] = None
                self._blocks.move_to_end(h)
            self._evict()
        return hit * self.block

    def _evict(self) -> None:
        if self.capacity is None:
            return
        room = max(1, self.capacity // self.block)
        while len(self._blocks) > room:
            self._blocks.popitem(last=False)
            self.evicted += 1
