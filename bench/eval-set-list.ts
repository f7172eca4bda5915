/** The outside examiner's sets (eval/README.md): written without reading the ranking code, gold only the defining passage. Scored by the benches; not in the CI floor test until the lead adds them. */
export const EXAMINER_SETS = ['eval/tune/classics-x.jsonl', 'eval/untouched/classics-x.jsonl', 'eval/tune/code-x.jsonl', 'eval/untouched/code-x.jsonl'];

/** Every eval set the benches and the corpora test score, relative to the repository root, with the corpus it asks. */
export const EVAL_SETS: { file: string; source: 'classics' | 'bookmarks' | 'code' }[] = [
  { file: 'eval/classics.jsonl', source: 'classics' },
  { file: 'eval/bookmarks.jsonl', source: 'bookmarks' },
  { file: 'bench/eval/classics-search.jsonl', source: 'classics' },
  { file: 'bench/eval/bookmarks-search.jsonl', source: 'bookmarks' },
  // query-analysis sets (eval/README.md): tune on dev, judge on held-out
  ...['dev', 'heldout'].flatMap((d) =>
    (['bookmarks-en', 'classics-en', 'classics-zh'] as const).map((f) => ({ file: `eval/${d}/${f}.jsonl`, source: f.startsWith('bookmarks') ? ('bookmarks' as const) : ('classics' as const) })),
  ),
  // ranking sets (eval/README.md): rules chosen on tune/, reported on untouched/
  ...['tune', 'untouched'].map((d) => ({ file: `eval/${d}/classics.jsonl`, source: 'classics' as const })),
  // an outside examiner's sets, narrow gold (eval/README.md): reported, not yet a CI floor
  ...EXAMINER_SETS.filter((f) => f.includes('classics')).map((file) => ({ file, source: 'classics' as const })),
];

/** The code sets (over code.bundle's tip, indexed as a code source by bench/code-eval.bench.ts): rules chosen on tune/, reported on untouched/. */
export const CODE_EVAL_SETS = ['eval/dev/code.jsonl', 'eval/tune/code.jsonl', 'eval/untouched/code.jsonl', ...EXAMINER_SETS.filter((f) => f.includes('code'))];
