import { SqliteIndex } from './src/storage/sqlite/index.ts';
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, openSync, writeSync, closeSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
const d = mkdtempSync('/tmp/probe-');
const f = join(d, 'a.db');
const s = new SqliteIndex(f); await s.close();
console.log(readdirSync(d));
execFileSync('chattr', ['+i', f]);
try { const x = new SqliteIndex(f); console.log('opened'); await x.ensureSource({name:'x',kind:'dir',url:null,branch:null}); } catch (e: any) { console.log('ro file:', e.code, e.message); }
execFileSync('chattr', ['-i', f]);
// immutable dir: -wal can't be created
const d2 = join(d, 'sub'); mkdirSync(d2); const f2 = join(d2, 'b.db'); await new SqliteIndex(f2).close();
console.log(readdirSync(d2));
execFileSync('chattr', ['+i', d2]);
try { const x = new SqliteIndex(f2); console.log('opened2'); await x.ensureSource({name:'x',kind:'dir',url:null,branch:null}); console.log('wrote2') } catch (e: any) { console.log('ro dir:', e.code, e.message); }
try { const x = new SqliteIndex(f2, 'read'); console.log('opened2 read', await x.status()); } catch (e: any) { console.log('ro dir read:', e.code, e.message); }
try { new SqliteIndex(join(d2, 'new', 'c.db')); } catch (e: any) { console.log('mkdir:', e.code, e.message); }
execFileSync('chattr', ['-i', d2]);
// corrupt
const f3 = join(d, 'c.db'); const s3 = new SqliteIndex(f3);
await s3.ensureSource({name:'x',kind:'dir',url:null,branch:null}); await s3.close();
const fd = openSync(f3, 'r+'); writeSync(fd, Buffer.alloc(4096 * 6, 0xab), 0, 4096*6, 4096); closeSync(fd);
try { const x = new SqliteIndex(f3, 'read'); console.log(await x.status()); } catch (e: any) { console.log('corrupt:', e.code, e.message); }
