import { redactSecrets } from '../core/redact.ts';
import { visible } from '../core/text/visible.ts';

/** A line on stderr as `ragsync[ what]: …`: credentials masked, control characters escaped. */
export const say = (line: string, who = 'ragsync'): void => void process.stderr.write(`${who}: ${visible(redactSecrets(line))}\n`);
