"""Stage 3, generate: the models' answers, k seeded samples per question, through a cache.

Enters: articles and questions (`experiment.corpus`), a model spec and sampling parameters.
Leaves: `Sample`s, each the raw `Generation` (text, tokens, seconds, finish reason) with its
question, sample index, seed and the part of the article the model read.

- `models/`: the backends behind one interface (`base.Backend`): llama-cpp-python one sample at a
  time (`llama`) or k samples decoded together on one shared prefill (`batched`), any
  OpenAI-compatible server (`openai_compat`); the catalog, download store and GGUF checks;
- `sampling`: per-question seeds, article order (a shared prefix is read once), the cache;
- `prompts`, `windows` (long articles read as the window closest to the question, or the
  small model's excerpt of the sentences closest to it),
  `speculative` (drafts checked in one batch), `trouble` (what went wrong with an output),
  `serve` (llama-cpp-python's server with the same weight layout as in-process).

Trade-offs: every sample has its own derived seed and every generation is cached by everything
that decides it, so runs resume and re-scoring never calls a model; nothing here reads values.
"""
