"""What a model's chat template says around an answer: the text that ends the assistant's turn.

A candidate answer is scored as the model's whole reply: its tokens, then the token that ends
the turn. Which token that is belongs to the template, not to the vocabulary's "end of turn"
entry (SmolLM2 ends a turn with `<|im_end|>`, its vocabulary names `<|endoftext|>`), so it is
read off the template: render a conversation that ends with an assistant message and take the
text after that message.
"""

from __future__ import annotations

MARK = "\u2063ANSWER\u2063"  # a reply no template alters


def turn_end(template: str, eos: str, bos: str) -> str:
    """The text the template writes right after an assistant message ("" if it writes none)."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter = Jinja2ChatFormatter(template, eos, bos, add_generation_prompt=False)
    messages = [{"role": "user", "content": "?"}, {"role": "assistant", "content": MARK}]
    text = formatter(messages=messages).prompt  # type: ignore[arg-type]
    at = text.rfind(MARK)
    return text[at + len(MARK) :] if at >= 0 else ""
