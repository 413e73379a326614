"""The chat prompt: article first, question last, so questions about one article share a prefix.

Two prompts (the `prompt` setting): `figure` (the default) asks for the figure or date alone;
`derive` also lets a computed answer come with its working, `RESULT = EXPRESSION` over figures
the article writes (`experiment.verify.derive` checks it; docs/NORMALIZER.md, "Derivations")."""

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
DERIVE_SYSTEM = SYSTEM.replace(
    "If the article",
    "If the answer is not written in the article but computed from figures it writes (a "
    "difference, a sum, a ratio, a percentage change, an average, a count), reply with the "
    "result, an equals sign and the calculation over the article's figures, using + - * / and "
    "parentheses only (for example: 7 = 9 - 2, or 22.2% = (56.7 - 44.1) / 56.7). If the article",
)
FIGURE, DERIVE = "figure", "derive"
PROMPTS = {FIGURE: SYSTEM, DERIVE: DERIVE_SYSTEM}


def messages_for(article: Article, question: Question, prompt: str = FIGURE) -> Messages:
    """The chat messages of `prompt` (a key of `PROMPTS`); imported passages (published
    'unknown') get no publication date."""
    dated = "" if article.published in ("", "unknown") else f" (published {article.published})"
    return [
        {"role": "system", "content": PROMPTS[prompt]},
        {
            "role": "user",
            "content": (
                f"Article: {article.title}{dated}\n\n{article.text}\n\n"
                f"Question: {question.text}\nAnswer with the figure or date only."
            ),
        },
    ]
