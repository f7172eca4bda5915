// Agent tools the profiles bring (exported by `ragsync/ai`).
export * from './classics/tool.ts';
