"""The chat prompt: article first, question last, so questions about one article share a prefix."""

from __future__ import annotations

from experiment.models.base import Messages
from experiment.records import Article, Question

SYSTEM = (
    "You answer questions about one article. Reply with the figure or date only, "
    "as short as possible, copied from the article where it appears there. "
    "If the article does not give the answer, reply: unknown"
)


def messages_for(article: Article, question: Question) -> Messages:
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": (
                f"Article: {article.title} (published {article.published})\n\n{article.text}\n\n"
                f"Question: {question.text}\nAnswer with the figure or date only."
            ),
        },
    ]
