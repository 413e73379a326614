"""Stage 4, evaluate: samples become confirmed answers, then the methods' answers, judged.

Enters: samples (`experiment.generate`), articles, and questions with gold answers.
Leaves: `Attempt` records (value, confirmed or not, evidence span), each method's answer per
question, one summary row per method, accuracy against k, and the confirmed-but-wrong answers.

- `confirm`: a sample as an `Answer`, its `Attempt` and value, confirmed in the article or not
  (no gold involved);
- `judge`: the one rule that says whether an answer is right against gold (strict: dates within a
  gold interval, opposite qualifiers never equal, changes by magnitude and direction, failures
  never right);
- `vote`: k answers to one, by value, whatever the order of the samples;
- `pool`: every value of the asked kind the article states, merged with the confirmed samples
  (origin sampled, text or both), ranked without a model and bounded; `text-only` answers from
  it with no model at all;
- `proposals`, `proposal_pool`: a computed question's calculations the article drafts (ranked
  without a model; `text-derived`), and the kept ones merged with the small model's confirmed
  calculations; `drafts`: a model's scores of either pool, and the picks from them;
- `methods`: large@1, small@1, small-maj@k, small-verified@k, small-pass@k, cascade, all from
  the same samples;
- `summary`, `stats`: accuracy with cluster-bootstrap intervals (the questions' unit of
  dependence), the paired difference against large@1 with its interval, exact McNemar, and the
  verdict rule every output states;
- `blindspots`: why each confirmed answer was still wrong.

Trade-offs: every method is a pure function of the same samples, so methods are compared on the
same questions and draws (paired), and adding one costs no generation.
"""
