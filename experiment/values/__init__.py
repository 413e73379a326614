"""Stage 1, values: text to canonical figures and dates.

Enters: any text (an article, a model's answer, a gold string, a question).
Leaves: located `Mention`s (where a value is written, and every reading of it) and canonical
`Quantity` / `DateValue` values that compare by meaning, not by spelling.

- `numbers`, `dates`: the scanners (separators, scale words, number words, units; dates with
  their granularity, numeric dates with a configured day/month order);
- `canonical`: the value types and the two comparisons (`same_value`, `supports`);
- `normalize`: `scan` (every mention of a text, cached) and `parse_value` (one short answer);
- `tables`: Markdown pipe tables as cells with offsets, headers and the table's scale and unit;
  `article_mentions`, an article's mentions with each body figure cell read in its table's scale;
- `extract`: the figure or date a question asks for, out of a free-text model answer;
- `question_kind`: whether a question asks for a figure or a date.

Trade-offs: hand-written rules, deterministic and documented (docs/NORMALIZER.md), rather than a
learned parser; a bare year keeps both readings (date and number) and the question decides;
dateparser is only a fallback and never fills a missing part from today's date.
"""
