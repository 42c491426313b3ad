"""Environment variables a project's file may never set, trusted or not: those that change how
programs load code or where they connect, the agent's own, and API keys.

A project's `env` reaches the commands the user allowed by their own rules (`git status`), their own
MCP servers and hooks: through one of these names it would turn them into the project's code
(`LD_PRELOAD`, `GIT_CONFIG_GLOBAL` with `core.fsmonitor`) or send their traffic through its proxy
(`HTTPS_PROXY` with its own `SSL_CERT_FILE`). Approving the project does not lift this: the question
is about what the project runs, not about what it makes the user's own programs run. Names are
compared in upper case (`https_proxy` is read as well).
"""

from __future__ import annotations

from agent.provider.keys import is_key_name

# How the dynamic loader, interpreters and shells find code or startup files.
_LOADING = (
    "PATH",
    "HOME",
    "ENV",
    "BASH_ENV",
    "NODE_OPTIONS",
    "NODE_PATH",
    "SHELL",
    "SHELLOPTS",
    "BASHOPTS",
    "PROMPT_COMMAND",
    "PS4",
    "IFS",
    "CDPATH",
    "ZDOTDIR",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "GCONV_PATH",
    "LOCPATH",
    "NLSPATH",
    "TERMINFO",
    "TERMINFO_DIRS",
    "OPENSSL_CONF",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "BROWSER",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "GOFLAGS",
)
# Where programs connect, and which certificates they believe.
_CONNECTING = (
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS",
    "HOSTALIASES",
    "RESOLV_HOST_CONF",
    "DOCKER_HOST",
    "GOPROXY",
    "GOSUMDB",
    "GONOSUMDB",
    "GOINSECURE",
    "SSH_AUTH_SOCK",
)
EXACT = frozenset(_LOADING + _CONNECTING)
PREFIXES = (
    "LD_",
    "DYLD_",
    "PYTHON",
    "GIT_",
    "SSL_",
    "CODING_AGENT_",
    "NPM_CONFIG_",
    "PIP_",
    "UV_",
    "OPENAI_",
    "DEEPSEEK_",
)
SUFFIXES = ("_PROXY",)


def protected(name: str) -> bool:
    """Whether a project's file may never set `name` (nor give it to an MCP server unmarked)."""
    upper = name.upper()
    return is_key_name(upper) or upper in EXACT or upper.startswith(PREFIXES) or upper.endswith(SUFFIXES)


def valid_name(name: str) -> bool:
    """A name an environment can hold: `=` or NUL in it would make every command fail to start."""
    return bool(name) and "=" not in name and "\0" not in name
