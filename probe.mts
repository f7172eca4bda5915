import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
const d = mkdtempSync('/tmp/probe-');
const f = join(d, 'a.db');
const db = new Database(f);
db.pragma('journal_mode = WAL');
db.transaction(() => { db.exec('CREATE TABLE t(x); PRAGMA application_id = 1380406105;'); })();
console.log('appid', db.pragma('application_id', { simple: true }));
db.close();
console.log('after close', readdirSync(d));
const r = new Database(f, { readonly: true, fileMustExist: true });
console.log(r.prepare('select count(*) from t').pluck().get(), readdirSync(d));
r.close();
console.log('after ro close', readdirSync(d));
// directory
mkdirSync(join(d, 'dir.db'));
try { const x = new Database(join(d, 'dir.db')); x.prepare('select 1').get(); } catch (e: any) { console.log('dir:', e.code, e.message); }
writeFileSync(join(d, 'text.db'), 'hello this is not sqlite'.repeat(100));
try { const x = new Database(join(d, 'text.db')); x.prepare('select * from sqlite_master').all(); } catch (e: any) { console.log('text:', e.code, e.message); }
try { const x = new Database(join(d, 'text.db'), {readonly: true}); x.pragma('application_id'); } catch (e: any) { console.log('text ro:', e.code, e.message); }
const ro = new Database(f, { readonly: true });
try { ro.exec('insert into t values (1)'); } catch (e: any) { console.log('ro write:', e.code, e.message); }
try { const x = new Database(join(d, 'nope', 'a.db')); } catch (e: any) { console.log('nofolder:', e.code, e.message); }
