/** Every eval set the benches score, relative to the repository root. */
export const EVAL_SETS = [
  'eval/classics.jsonl',
  'eval/bookmarks.jsonl',
  'bench/eval/classics-search.jsonl',
  'bench/eval/bookmarks-search.jsonl',
  // query-analysis sets (eval/README.md): tune on dev, judge on held-out
  ...['dev', 'heldout'].flatMap((d) => ['bookmarks-en', 'classics-en', 'classics-zh'].map((f) => `eval/${d}/${f}.jsonl`)),
];

/** The code sets (over code.bundle's tip, bench/code-eval.bench.ts): tune on dev/code-qa, judge on heldout/code-qa. */
export const CODE_EVAL_SETS = ['eval/dev/code.jsonl', 'eval/dev/code-qa.jsonl', 'eval/heldout/code-qa.jsonl'];
