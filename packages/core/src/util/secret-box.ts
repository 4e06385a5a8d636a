import { inject, injectable } from "tsyringe";
import { decryptSecret, encryptSecret } from "./encryption.js";
import { SECRET_KEY, type SecretKeyLoader } from "./secret-key.js";

/**
 * Seals secrets kept in storage with the server's key, loaded on first use (so composing
 * Reposite never touches the data directory by itself). `context` is the record's storage key.
 */
@injectable()
export class SecretBox {
  private key: Promise<Uint8Array> | undefined;

  constructor(@inject(SECRET_KEY) private readonly loadKey: SecretKeyLoader) {}

  async seal(plain: string, context: string): Promise<string> {
    return encryptSecret(plain, await this.currentKey(), context);
  }

  /** Throws when the value was changed or sealed with another key (REPOSITE_SECRET_KEY changed). */
  async open(sealed: string, context: string): Promise<string> {
    return decryptSecret(sealed, await this.currentKey(), context);
  }

  private currentKey(): Promise<Uint8Array> {
    this.key ??= this.loadKey().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key;
  }
}
