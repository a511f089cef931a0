/** Types for ./host-headers.mjs (plain JavaScript, run after a build). */
export interface PageRule {
  file: string;
  paths: string[];
  policy: string;
  frameable: boolean;
}
export function pageRules(dir: string): Promise<PageRule[]>;
export function headersFile(rules: readonly PageRule[]): string;
export function nginxConf(rules: readonly PageRule[]): string;
