/**
 * Runs the loopback provider in its own process, so a benchmark's client does not share an event
 * loop with it: `node --import tsx tests/helpers/fake-provider-main.ts '<FakeProviderOptions JSON>'`.
 * Prints {"baseUrl": …} on its first stdout line; GET /_stats reports what it saw; SIGTERM stops it.
 */
import { FakeProvider, type FakeProviderOptions } from './fake-provider.ts';

const opts = JSON.parse(process.argv[2] ?? '{"dims":256}') as FakeProviderOptions;
const fake = await FakeProvider.start(opts);
process.stdout.write(JSON.stringify({ baseUrl: fake.baseUrl }) + '\n');
process.on('SIGTERM', () => {
  void fake.close().then(() => process.exit(0));
});
