import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The sockets a set of processes listens on, read from /proc as `ss -ltnup` does: each process's
 * socket inodes (/proc/<pid>/fd) matched against the listening entries of /proc/net/{tcp,tcp6,udp,udp6}.
 */
export interface Listener {
  pid: number;
  command: string;
  proto: 'tcp' | 'tcp6' | 'udp' | 'udp6';
  address: string;
  port: number;
}

/** The pids of a process group (a runtime started detached: npm and all it started). */
export function groupPids(pgid: number): number[] {
  return execFileSync('ps', ['-eo', 'pid=,pgid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.trim().split(/\s+/).map(Number))
    .filter(([pid, group]) => group === pgid && pid !== undefined && Number.isInteger(pid))
    .map(([pid]) => pid!);
}

/** IPv4 in /proc/net is one little-endian 32-bit word; IPv6 four of them. */
function address(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((w) => Buffer.from(w, 'hex').reverse());
  if (words.length === 1) return [...words[0]!].join('.');
  const bytes = Buffer.concat(words);
  if (bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

export const isLoopback = (a: string) => a.startsWith('127.') || a.startsWith('::ffff:127.') || a === '::1' || a === '0:0:0:0:0:0:0:1';

export function listeners(pids: number[]): Listener[] {
  const owner = new Map<string, number>();
  for (const pid of pids) {
    let fds: string[] = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue; // gone
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) owner.set(m[1]!, pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  const out: Listener[] = [];
  for (const proto of ['tcp', 'tcp6', 'udp', 'udp6'] as const) {
    const lines = readFileSync(`/proc/net/${proto}`, 'utf8').trim().split('\n').slice(1);
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      const [, local, , state, , , , , , inode] = f;
      // TCP LISTEN is 0A; an unconnected UDP socket (07) receives from anyone.
      if (!local || !inode || state !== (proto.startsWith('tcp') ? '0A' : '07')) continue;
      const pid = owner.get(inode);
      if (pid === undefined) continue;
      const [hex, port] = local.split(':');
      let command = '';
      try {
        command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, 4).join(' ');
      } catch {}
      out.push({ pid, command, proto, address: address(hex!), port: parseInt(port!, 16) });
    }
  }
  return out;
}
