"""The chat prompt: article first, question last, so questions about one article share a prefix.

Four prompts (the `prompt` setting):
- `figure` (the default) asks for the figure or date alone;
- `derive` also lets a computed answer come with its working, `RESULT = EXPRESSION` over figures
  the article writes (`experiment.verify.derive` checks it; docs/NORMALIZER.md, "Derivations");
- `calc` asks for the calculation alone, over figures the article writes; the calculator
  computes its result (`experiment.verify.derive.confirm_expression`);
- `auto` gives `calc` to a question whose wording asks for a computation
  (`experiment.values.question_kind.asks_computation`) and `figure` to every other.
"""

from __future__ import annotations

from experiment.base.types import Article, Question
from experiment.generate.models.base import Messages
from experiment.values.question_kind import asks_computation

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
CALC_SYSTEM = (
    "You answer questions about one article. The answer is computed from figures the article "
    "writes. Reply with the calculation only, on one line: the article's figures copied exactly, "
    "joined by + - * / and parentheses; a calculator computes the result. Examples: "
    "'How many more staff than managers?' 1,250 - 75; "
    "'How many years after the merger was the plant closed?' 2011 - 1998; "
    "'What was the percentage change in sales?' (56.7 - 44.1) / 44.1 * 100; "
    "'What percent were not members?' 100 - 31.4; "
    "'What was the average of the two years?' (12.5 + 13.1) / 2. "
    "If the article writes the answer itself, reply with that figure. "
    "If the article does not give the figures, reply: unknown"
)
FIGURE, DERIVE, CALC, AUTO = "figure", "derive", "calc", "auto"
PROMPTS = {FIGURE: SYSTEM, DERIVE: DERIVE_SYSTEM, CALC: CALC_SYSTEM}
SETTINGS = (FIGURE, DERIVE, CALC, AUTO)  # what the `prompt` setting may be
# The calculation prompt's token limit (RunConfig.calc_max_tokens): the smallest of
# `bench/fit/calc_limit.LIMITS` that no more than 1 % of large@1's calculations on the fitting
# halves reach (`factqa bench fit calc-limit`, docs/RESULTS.md "calc-limit"); 0: `max_tokens`.
CALC_MAX_TOKENS = 64


def prompt_for(question: Question, prompt: str = FIGURE) -> str:
    """The prompt (a key of `PROMPTS`) that the setting `prompt` gives `question`."""
    if prompt == AUTO:
        return CALC if asks_computation(question.text) else FIGURE
    return prompt


def messages_for(article: Article, question: Question, prompt: str = FIGURE) -> Messages:
    """The chat messages of the setting `prompt` (`SETTINGS`) for `question`; imported passages
    (published 'unknown') get no publication date."""
    dated = "" if article.published in ("", "unknown") else f" (published {article.published})"
    key = prompt_for(question, prompt)
    ask = "the calculation" if key == CALC else "the figure or date"
    return [
        {"role": "system", "content": PROMPTS[key]},
        {
            "role": "user",
            "content": (
                f"Article: {article.title}{dated}\n\n{article.text}\n\n"
                f"Question: {question.text}\nAnswer with {ask} only."
            ),
        },
    ]
