/**
 * A link to a passage on the git host's web page for the file at the indexed commit, with its
 * line range where the chunk records one. Hosts are recognised by the shape their web pages take:
 * GitHub-style (…/blob/<commit>/<path>#L12-L40, also what most self-hosted mirrors of it answer),
 * GitLab (…/-/blob/<commit>/<path>#L12-40), Gitea/Forgejo/Codeberg (…/src/commit/<commit>/<path>#L12-L40).
 * A URL that is not an http(s) or scp-style address of a known host gives null: the caller then
 * shows the path.
 */
export interface Lines {
  start: number;
  end: number;
}

const GITEA = /(^|\.)(codeberg\.org|gitea\.[a-z.]+|forgejo\.[a-z.]+)$/i;

/** https://host/owner/repo of a clone URL (https, ssh://, scp-style git@host:owner/repo.git), or null. */
export function webRoot(url: string): { host: string; root: string } | null {
  let host: string;
  let path: string;
  const scp = /^[\w.-]+@([^:/]+):(.+)$/.exec(url);
  if (scp) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    // A local path is the usual case: refused without the cost of a thrown error.
    if (!URL.canParse(url)) return null;
    const u = new URL(url);
    if (!['http:', 'https:', 'ssh:', 'git:'].includes(u.protocol)) return null;
    host = u.hostname;
    path = u.pathname;
  }
  path = path.replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '');
  if (!host || !path.includes('/')) return null;
  return { host, root: `https://${host}/${path}` };
}

export function permalink(sourceUrl: string | null, commit: string | null, path: string, lines: Lines | null): string | null {
  if (!sourceUrl || !commit) return null;
  const web = webRoot(sourceUrl);
  if (!web) return null;
  const file = path.split('/').map(encodeURIComponent).join('/');
  if (/(^|\.)gitlab\./i.test(web.host) || web.host === 'gitlab.com') {
    return `${web.root}/-/blob/${commit}/${file}${lines ? `#L${lines.start}-${lines.end}` : ''}`;
  }
  const range = lines ? `#L${lines.start}-L${lines.end}` : '';
  if (GITEA.test(web.host)) return `${web.root}/src/commit/${commit}/${file}${range}`;
  return `${web.root}/blob/${commit}/${file}${range}`;
}
