"""The model provider: the pydantic-ai model and its OpenAI client (model), the last request reused as
the compaction request's prefix (prefix, request_body), the user's line for a failed request (error_text), API keys;
and the user's and the project's set-up files: settings, trust, custom commands' and sub-agents' Markdown files.
May import agent/tokens/, agent/store/, agent/text/ and the shared modules."""
