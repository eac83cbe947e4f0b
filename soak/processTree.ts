import { readdirSync, readFileSync } from 'node:fs';

/** The process ids whose parent is `parent` (read from /proc). */
export function childrenOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after its closing one are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parentId = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parentId === parent) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** kill -9 of a process group: a replica and everything it started. */
export function killGroup(leader: number): boolean {
  try {
    process.kill(-leader, 'SIGKILL');
    return true;
  } catch {
    return false;
  }
}
