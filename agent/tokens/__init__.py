"""Token counting: DeepSeek's tokenizer (count) over the chat template's layout (chat_template).
May import agent/store/, agent/text/ and the shared modules."""
