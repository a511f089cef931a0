/** Static export: every asset (PGlite's wasm and data, Monaco and its workers) is served from out/. */
/** @type {import('next').NextConfig} */
const nextConfig = {
  output: 'export',
  trailingSlash: true,
  images: { unoptimized: true },
  allowedDevOrigins: ['127.0.0.1'],
  reactStrictMode: true,
};

export default nextConfig;
