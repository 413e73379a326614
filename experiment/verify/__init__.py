"""Stage 2, verify: does the article itself state this value, and where?

Enters: a value (or an answer's text, read by `experiment.values`) and an article's text.
Leaves: a `Verdict` with every supporting span (offsets into the article), or a reason.

- `match`: locate, then decide by value (fuzzy alignment only locates a near-miss spelling);
- `injection`: sentences addressed to the model are never evidence;
- `answer`: one answer text confirmed end to end (read its value, then verify it);
- `derive`: a derivation `RESULT = EXPRESSION`, confirmed by its operands in the text and its
  arithmetic;
- `batch`: `factqa verify`, a CSV of answers from any system confirmed row by row.

Trade-offs: the article is the only oracle, so confirming is cheap and needs no model, but it says
that a value is written, not that it answers the question: a confirmed figure can be the wrong
one (last year's figure, one bound of a range), which `experiment.evaluate` measures.
"""
