import { Option, type Command } from 'commander';
import { selectSources } from '../../config/select.ts';
import { EXIT, RagsyncError } from '../../core/errors.ts';
import { EXPORT_FORMATS, writeExport, type ExportFormat } from '../export-writers.ts';
import { config, configOption, engineOf, openExisting } from '../options.ts';

export function register(program: Command): void {
  program
    .command('export')
    .description('every chunk (id, source, path, heading, content, metadata, textHash) as JSON lines, CSV or Parquet')
    .addOption(configOption())
    .option('-s, --source <name>', 'only this source')
    .addOption(new Option('--format <format>', 'output format').choices(EXPORT_FORMATS).default('jsonl'))
    .option('--vectors', "add each chunk text's vector (float32 list) under the configured embedder")
    .option('-o, --out <file>', 'write to this file instead of stdout (required for parquet)')
    .action(async (o: { config?: string; source?: string; format: ExportFormat; vectors?: boolean; out?: string }) => {
      const cfg = config(o);
      if (o.source) selectSources(cfg, [o.source]);
      if (o.format === 'parquet' && !o.out) throw new RagsyncError('--format parquet writes a file: pass --out FILE', EXIT.usage);
      // Only --vectors needs the embedder (a local server may be asked its vector size).
      const engine = engineOf(cfg);
      const fingerprint = o.vectors ? await engine.fingerprint().finally(() => engine.close()) : null;
      const store = openExisting(engine, { readOnly: true });
      try {
        const rows = store.exportChunks(o.source, fingerprint ? { vectorsOf: fingerprint } : {});
        const n = await writeExport(rows, { format: o.format, out: o.out ?? null, vectors: !!o.vectors, fingerprint });
        if (o.out) process.stderr.write(`ragsync: exported ${n} chunks to ${o.out} (${o.format}${o.vectors ? `, vectors of ${fingerprint}` : ''})\n`);
      } finally {
        await store.close();
      }
    });
}
