"""The emulator on the command line:  python -m tests.fake_openai [--port N] [--flavor ollama] [--skew]"""

from __future__ import annotations

import argparse
import sys
import threading

from tests import fake_rules
from tests.deepseek_template import Skew
from tests.fake_openai import FakeOpenAI
from tests.prefix_cache import DEFAULT_CAPACITY


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible server for trying the agent.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0)
    parser.add_argument("--max-context", type=int, default=None)
    parser.add_argument("--flavor", choices=fake_rules.FLAVORS, default="deepseek")
    parser.add_argument("--context-size", type=int, default=None, help="ollama: num_ctx")
    parser.add_argument("--enable-auto-tool-choice", action="store_true", help="vllm: accept tool_choice auto")
    parser.add_argument(
        "--skew",
        nargs="?",
        const="",
        default=None,
        metavar="KIND=SHARE,...",
        help="count off DeepSeek's tokenizer: system text and tool schemas, CJK, code "
        "(default system=0.15,cjk=0.1,code=-0.05)",
    )
    parser.add_argument(
        "--cache-tokens",
        type=int,
        default=DEFAULT_CAPACITY,
        help="tokens the prefix cache holds before it evicts the least recently used (0: no bound)",
    )
    parser.add_argument(
        "--until-stdin-closes",
        action="store_true",
        help="stop when standard input closes (the agent's --demo: it ends with the agent)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    skew = None if args.skew is None else Skew.parse(args.skew)
    server = FakeOpenAI(
        args.latency,
        port=args.port,
        max_context=args.max_context,
        flavor=args.flavor,
        context_size=args.context_size,
        auto_tool_choice=args.enable_auto_tool_choice,
        skew=skew,
        cache_tokens=args.cache_tokens or None,
    ).start()
    print(f"FAKE_OPENAI_URL={server.base_url}", flush=True)
    try:
        if args.until_stdin_closes:
            sys.stdin.buffer.read()
        else:
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
