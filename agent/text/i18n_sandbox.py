"""Texts of the OS sandbox: its settings, /status and /config lines, the start notice, the offer to run
outside, in English and Chinese; agent.text.i18n merges them into its table."""

from __future__ import annotations

SANDBOX_TEXTS: dict[str, tuple[str, str]] = {
    # key: (en, zh)
    "sandbox_refused": (
        "Settings {path}: '{name}' is not taken from a project's file: it would loosen the OS sandbox "
        "(set it in your own settings file or with --sandbox)",
        "设置文件 {path}：不采用项目设置文件中的 '{name}'：它会放宽操作系统沙箱"
        "（请写在你自己的设置文件里，或用 --sandbox）",
    ),
    "sandbox_root_missing": (
        "Settings {path}: sandbox.writableRoots: {root} is not an existing folder; it is ignored",
        "设置文件 {path}：`sandbox.writableRoots` 中的 {root} 不是已存在的文件夹，已忽略",
    ),
    "takes_paths": ("a list of absolute paths", "绝对路径的列表"),
    "sandbox_missing_bwrap": ("bubblewrap not found", "未找到 `bubblewrap`"),
    "sandbox_bwrap_failed": (
        "bubblewrap cannot start a sandbox here: {detail}",
        "`bubblewrap` 在此无法建立沙箱：{detail}",
    ),
    "sandbox_missing_landlock": ("Landlock unavailable", "`Landlock` 不可用"),
    "sandbox_missing_test": ("bubblewrap hidden by the test switch", "`bubblewrap` 被测试开关隐藏"),
    "sandbox_missing_platform": ("no sandbox is known for {detail}", "{detail} 上没有已知的沙箱"),
    "sandbox_none_notice": (
        "No OS sandbox here ({why}): commands run unsandboxed, with your full rights, and are asked about as before.",
        "此处没有操作系统沙箱（{why}）：命令不在沙箱中运行，拥有你的全部权限，并像以前一样先征求同意。",
    ),
    "sandbox_fallback_notice": (
        "OS sandbox: {detail} ({why}). Commands cannot create or delete entries directly in the workspace; "
        "such a command is offered to run outside.",
        "操作系统沙箱：{detail}（{why}）。命令不能在工作区顶层新建或删除条目；这样的命令会提示是否在沙箱外运行。",
    ),
    "sandbox_status": (
        "Sandbox: {mode} ({detail}) · network {network} · process limit {limit}",
        "沙箱：{mode}（{detail}）· 网络{network} · 进程上限 {limit}",
    ),
    "sandbox_status_off": (
        "Sandbox: danger-full-access ({origin}): commands run with your full rights",
        "沙箱：`danger-full-access`（{origin}）：命令拥有你的全部权限",
    ),
    "sandbox_status_none": ("Sandbox: none: {why} — commands run unsandboxed", "沙箱：无：{why} —— 命令不在沙箱中运行"),
    "sandbox_network_on": ("on", "开启"),
    "sandbox_network_off": ("off", "关闭"),
    "sandbox_limit_extra": ("+{n} processes", "另加 {n} 个进程"),
    "sandbox_limit_none": ("none ({why})", "无（{why}）"),
    "sandbox_limit_root": (
        "root: the kernel's per-user limit does not hold root, and no pids cgroup can be made here",
        "`root`：内核的按用户进程上限不约束 `root`，且此处无法创建 `pids cgroup`",
    ),
    "sandbox_limit_no_prlimit": ("prlimit not found", "未找到 `prlimit`"),
    "sandbox_limit_platform": ("not on this system", "此系统不支持"),
    "config_sandbox": ("  sandbox          {mode:<28} {source}", "  沙箱             {mode:<28} {source}"),
    "config_sandbox_more": (
        "    network {network} · writable besides the workspace: {roots} · {limit} processes more",
        "    网络{network} · 工作区之外可写：{roots} · 另加 {limit} 个进程",
    ),
    "config_sandbox_none": ("(none)", "（无）"),
    "sandbox_why_write": ("the sandbox refused a write: {line}", "沙箱拒绝了一次写入：{line}"),
    "sandbox_why_network": ("the sandbox has no network: {line}", "沙箱中没有网络：{line}"),
    "approve_outside": (
        "Run it again OUTSIDE the sandbox, with your full rights ({why})",
        "在沙箱之外、以你的全部权限再运行一次（{why}）",
    ),
    "sandbox_rerun_unasked": (
        "The OS sandbox stopped a command ({why}); it runs again outside the sandbox (--yes asks nothing).",
        "操作系统沙箱拦下了一条命令（{why}）；它将在沙箱外再运行一次（--yes 不再询问）。",
    ),
    "print_declined_outside": (
        "Declined to run `{command}` outside the sandbox ({why}): -p cannot ask for approval. Rerun with --yes or "
        "--sandbox danger-full-access to allow it.",
        "已拒绝在沙箱外运行 `{command}`（{why}）：-p 模式无法征求同意。如要允许，请加 --yes 或 "
        "`--sandbox danger-full-access` 重新运行。",
    ),
}
