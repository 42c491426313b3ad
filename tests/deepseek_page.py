"""DeepSeek's "Models & Pricing" page as read on 2026-12-01 (autumn 2026 prices), typed from the
page itself: the outside oracle for every price test (never from agent.provider.prices or genai-prices)."""

PAGE = {  # per 1M tokens: (hit, miss, output)
    "deepseek-flash": {"off_peak": (0.003, 0.15, 0.60), "peak": (0.006, 0.30, 1.20)},
    "deepseek-v4-pro": {"off_peak": (0.022, 0.66, 1.98), "peak": (0.044, 1.32, 3.96)},
}
