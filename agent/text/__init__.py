"""User-facing texts in English and Chinese (i18n, i18n_ui) and the prompts, which are data
(prompts, prompts/*.md).
Imports nothing of agent/."""
