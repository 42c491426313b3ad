"""The model provider: the pydantic-ai model and its OpenAI client (model), the last request reused as
the compaction request's prefix (prefix, request_body), the user's line for a failed request (error_text),
API keys; the settings files and what a project's files may grant once the user approves them
(settings, grants, trust, protected_env); custom commands' and sub-agents' Markdown files.
May import agent/tokens/, agent/store/, agent/text/ and the shared modules."""
