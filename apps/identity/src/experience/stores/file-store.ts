import { Inject, Injectable } from '@nestjs/common';
import { mkdir, readdir, readFile, stat, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ExperienceSettings } from '../experience.settings';

/** Where transcripts and exports are kept. */
export interface FileStore {
  readonly kind: string;
  put(path: string, content: string): Promise<void>;
  get(path: string): Promise<string | null>;
  usage(): Promise<{ fileCount: number; bytes: number }>;
  ping(): Promise<{ ok: boolean; detail?: string }>;
}

export const FILE_STORE = Symbol('experience:file-store');

/** The default file store: a local directory (`Experience:FileStoreDir`); writes are atomic (temp + rename). */
@Injectable()
export class LocalDirectoryFileStore implements FileStore {
  readonly kind = 'local-directory';
  readonly root: string;
  private usageCache: { at: number; value: { fileCount: number; bytes: number } } | null = null;

  constructor(@Inject(ExperienceSettings) settings: ExperienceSettings) {
    this.root = resolve(settings.fileStoreDir || join(tmpdir(), 'arbiter-experience-files'));
  }

  private pathOf(path: string): string {
    const full = resolve(this.root, path);
    if (full !== this.root && !full.startsWith(this.root + sep))
      throw new Error(`path escapes the store: ${path}`);
    return full;
  }

  async put(path: string, content: string): Promise<void> {
    const full = this.pathOf(path);
    await mkdir(dirname(full), { recursive: true });
    const temp = `${full}.${randomUUID()}.tmp`;
    await writeFile(temp, content);
    await rename(temp, full);
    this.usageCache = null;
  }

  async get(path: string): Promise<string | null> {
    try {
      return await readFile(this.pathOf(path), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async usage(): Promise<{ fileCount: number; bytes: number }> {
    if (this.usageCache && Date.now() - this.usageCache.at < 5000) return this.usageCache.value;
    let fileCount = 0;
    let bytes = 0;
    const walk = async (dir: string) => {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        return;
      }
      for (const name of names) {
        const full = join(dir, name);
        const s = await stat(full).catch(() => null);
        if (!s) continue;
        if (s.isDirectory()) await walk(full);
        else if (!name.endsWith('.tmp') && !name.startsWith('.probe-')) {
          fileCount++;
          bytes += s.size;
        }
      }
    };
    await walk(this.root);
    const value = { fileCount, bytes };
    this.usageCache = { at: Date.now(), value };
    return value;
  }

  async ping(): Promise<{ ok: boolean; detail?: string }> {
    try {
      await mkdir(this.root, { recursive: true });
      const probe = join(this.root, `.probe-${process.pid}`);
      await writeFile(probe, 'ok');
      return { ok: true };
    } catch (error) {
      return { ok: false, detail: `${relative(process.cwd(), this.root)}: ${(error as Error).message}` };
    }
  }
}
