"""User-facing texts in English and Chinese (i18n, which merges one table per topic: i18n_*) and the
prompts, which are data (prompts, prompts/*.md).
Imports nothing of agent/."""
