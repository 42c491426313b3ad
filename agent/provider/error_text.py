"""What the user is told when a model request fails: one clear line, in their language."""

from __future__ import annotations

import re

from agent.config import RETIRED_MODELS, Config, is_local_url
from agent.provider import server_errors
from agent.text.i18n import t


def describe_error(exc: BaseException, config: Config) -> str:
    """One clear line for the user; the traceback goes to the debug log only."""
    from pydantic_ai.exceptions import (
        ModelAPIError,
        ModelAuthenticationError,
        ModelContextWindowExceededError,
        ModelHTTPError,
        ModelNotFoundError,
        UnexpectedModelBehavior,
        UsageLimitExceeded,
    )

    from agent.errors import WindowOverflow

    lang = config.lang
    if isinstance(exc, UsageLimitExceeded):
        return t("err_request_limit", lang, n=config.max_requests)
    if isinstance(exc, WindowOverflow):
        return str(exc)
    if isinstance(exc, ModelAuthenticationError) or (isinstance(exc, ModelHTTPError) and exc.status_code == 401):
        return t("err_auth", lang, status=getattr(exc, "status_code", 401))
    if isinstance(exc, ModelHTTPError) and exc.status_code == 403:
        return t("err_forbidden", lang)
    if isinstance(exc, ModelNotFoundError) or (isinstance(exc, ModelHTTPError) and exc.status_code == 404):
        # A local server's 404 is most often a base URL without /v1, rarely the model.
        return t("err_not_found", lang, model=config.model)
    if is_local_url(config.base_url) and server_errors.is_too_long(exc):
        # A local server's refusal: it knows its context size, the user needs the flag to set.
        n_ctx = server_errors.server_window(exc)
        detail = _short(_message(exc))
        return (
            t("err_context_server", lang, n_ctx=n_ctx, detail=detail)
            if n_ctx
            else t("err_context_local", lang, detail=detail)
        )
    if isinstance(exc, ModelContextWindowExceededError):
        return t("err_context", lang)
    body = str(getattr(exc, "body", None) or "") if isinstance(exc, ModelHTTPError) else ""
    if (
        isinstance(exc, ModelHTTPError)
        and exc.status_code == 400
        and config.model in RETIRED_MODELS
        and ("retired" in body.lower() or _UNKNOWN_MODEL.search(body))
    ):
        return t("model_retired", lang, model=config.model, new=RETIRED_MODELS[config.model])
    if isinstance(exc, ModelHTTPError) and exc.status_code == 400 and _UNKNOWN_MODEL.search(body):
        return t("err_model", lang, model=config.model)  # DeepSeek: 400 "Model Not Exist"
    if isinstance(exc, ModelHTTPError) and exc.status_code == 400 and _AUTO_TOOL_FLAGS.search(body):
        return t("err_tool_choice_flags", lang, detail=_short(body))
    if isinstance(exc, ModelHTTPError):
        return t("err_http", lang, status=exc.status_code, detail=_short(exc.body or exc.message))
    if isinstance(exc, ModelAPIError):
        # "Could not reach" is wrong for an answer that broke off or was not JSON: say what happened.
        from json import JSONDecodeError

        from httpx2 import ReadError, ReadTimeout, RemoteProtocolError  # the openai client's HTTP library
        from openai import APITimeoutError

        causes = _causes(exc)
        if any(isinstance(e, APITimeoutError | ReadTimeout) for e in causes):
            from agent.provider.model import request_timeout

            return t("err_timeout", lang, url=config.endpoint, seconds=request_timeout(config))
        if broken := next((e for e in causes if isinstance(e, RemoteProtocolError | ReadError)), None):
            return t("err_broken_stream", lang, detail=_short(broken))
        if any(isinstance(e, JSONDecodeError) for e in causes):
            return t("err_bad_json", lang, url=config.endpoint, detail=_short(exc))
        return t("err_api", lang, detail=_short(str(exc)), url=config.endpoint)
    if isinstance(exc, UnexpectedModelBehavior):
        return t("err_behaviour", lang, detail=_short(str(exc)))
    return t("err_other", lang, detail=_short(f"{type(exc).__name__}: {exc}"))


# vLLM: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'.
_AUTO_TOOL_FLAGS = re.compile(r"enable-auto-tool-choice|tool-call-parser", re.I)
_UNKNOWN_MODEL = re.compile(r"model[ _]not[ _]exist|model_not_found|model .{0,80}does not exist", re.I)


def _causes(exc: BaseException) -> list[BaseException]:
    """`exc` and what it was raised from, outermost first."""
    chain: list[BaseException] = []
    while exc is not None and exc not in chain and len(chain) < 10:
        chain.append(exc)
        exc = exc.__cause__ or exc.__context__
    return chain


def _message(exc: BaseException) -> str:
    """The error's own message: llama.cpp's body is a dict (`{"message": ..., "n_ctx": ...}`)."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        for value in (inner.get("message"), body.get("error")):  # LM Studio: {"error": "text"}
            if isinstance(value, str):
                return value
    return str(body or getattr(exc, "message", "") or exc)


def _short(detail: object, limit: int = 200) -> str:
    text = " ".join(str(detail).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
