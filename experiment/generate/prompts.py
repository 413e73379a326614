"""The chat prompt: article first, question last, so questions about one article share a prefix."""

from __future__ import annotations

from experiment.generate.models.base import Messages
from experiment.records import Article, Question

# The examples are deliberately not from the bundled corpus.
SYSTEM = (
    "You answer questions about one article. Reply with the figure or date only, copied "
    "exactly as the article writes it, with its unit, currency and scale words "
    "(for example: $12 million, 35 km, 5 May 2010). "
    "If the article does not give the answer, reply: unknown"
)


def messages_for(article: Article, question: Question) -> Messages:
    """The chat messages; imported passages (published 'unknown') get no publication date."""
    dated = "" if article.published in ("", "unknown") else f" (published {article.published})"
    return [
        {"role": "system", "content": SYSTEM},
        {
            "role": "user",
            "content": (
                f"Article: {article.title}{dated}\n\n{article.text}\n\n"
                f"Question: {question.text}\nAnswer with the figure or date only."
            ),
        },
    ]
