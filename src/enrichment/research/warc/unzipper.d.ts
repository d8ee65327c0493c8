/**
 * The part of `unzipper` (ZIP reading by central directory, streamed entries; a dependency of
 * exceljs) that WACZ reading uses; the package ships no types.
 */
declare module 'unzipper' {
  import type { Readable } from 'node:stream';
  /** One entry of a ZIP file's central directory. */
  export interface CentralDirectoryFile {
    path: string;
    type: 'File' | 'Directory';
    uncompressedSize: number;
    /** The entry's bytes, decompressed. */
    stream(): Readable;
  }
  /** A ZIP file's central directory. */
  export interface CentralDirectory {
    files: CentralDirectoryFile[];
  }
  export const Open: {
    /** Reads the central directory of the ZIP file at `path`. */
    file(path: string): Promise<CentralDirectory>;
  };
}
