/** The part of js-yaml (4.x, no bundled types) the compose test reads YAML with. */
declare module 'js-yaml' {
  /** Parses one YAML document (YAML 1.2 core schema). @throws YAMLException on a syntax error */
  export function load(text: string): unknown;
}
