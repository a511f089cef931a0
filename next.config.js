/** Static export: every asset (PGlite's wasm and data, Monaco and its workers) is served from out/. */
/** @type {import('next').NextConfig} */
const nextConfig = {
  output: 'export',
  trailingSlash: true,
  images: { unoptimized: true },
  allowedDevOrigins: ['127.0.0.1'],
  reactStrictMode: true,
  // Scope hoisting merges a chunk's modules into one function scope. In the database worker that
  // scope holds PGlite's Emscripten glue, which calls `eval`, and a scope that `eval` can see keeps
  // every name: the engine, XState and sucrase went unminified (worker chunk 828 KB, 752 KB without).
  experimental: { turbopackScopeHoisting: false },
};

export default nextConfig;
