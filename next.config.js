/** Static export: every asset (PGlite's wasm and data, Monaco and its workers) is served from out/. */
/**
 * `EO_PACKAGE_BUILD=1` (scripts/package-site.ts) builds the site for course-platform packages: under
 * the placeholder base path `/__eo_base__`, into `.next-package/` (where `output: 'export'` then also
 * writes the pages), leaving `.next/` and `out/` alone. The packaging step replaces the placeholder
 * with relative paths in HTML and CSS and with the base computed at run time in JavaScript.
 */
const packageBuild = process.env.EO_PACKAGE_BUILD === '1';

/** @type {import('next').NextConfig} */
const nextConfig = {
  output: 'export',
  ...(packageBuild ? { basePath: '/__eo_base__', distDir: '.next-package' } : {}),
  trailingSlash: true,
  images: { unoptimized: true },
  allowedDevOrigins: ['127.0.0.1'],
  reactStrictMode: true,
  // Scope hoisting merges a chunk's modules into one function scope. In the database worker that
  // scope holds PGlite's Emscripten glue, which calls `eval`, and a scope that `eval` can see keeps
  // every name: the engine, XState and sucrase went unminified (worker chunk 828 KB, 752 KB without).
  experimental: { turbopackScopeHoisting: false },
  // `EO_SOURCE_MAPS=1 npm run build`: a build whose scripts have source maps beside them, for
  // `npm run profile:lab` to name the file behind each sampled function. Never for a release.
  productionBrowserSourceMaps: process.env.EO_SOURCE_MAPS === '1',
};

export default nextConfig;
