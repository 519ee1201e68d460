import { hash, verify, type Options } from '@node-rs/argon2';
import { Injectable } from '@nestjs/common';

/** OWASP Password Storage Cheat Sheet: argon2id, m = 19 MiB, t = 2, p = 1 (minimum); we use 19 MiB / t=2 / p=1. */
// `Algorithm` is a const enum (no runtime object under swc): 2 is Argon2id.
export const ARGON2_OPTIONS: Options = {
  algorithm: 2 as Options['algorithm'],
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
  outputLen: 32,
};

@Injectable()
export class PasswordHasher {
  /** A real hash verified when the user does not exist, so timing does not reveal user names. */
  private dummy: Promise<string> | null = null;

  hash(password: string): Promise<string> {
    return hash(password, ARGON2_OPTIONS);
  }

  async verify(hashed: string | undefined, password: string): Promise<boolean> {
    if (!hashed) {
      this.dummy ??= this.hash('arbiter-dummy-password');
      await verify(await this.dummy, password).catch(() => false);
      return false;
    }
    try {
      return await verify(hashed, password);
    } catch {
      return false;
    }
  }
}
