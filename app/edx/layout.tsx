import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { PlatformChrome } from '@/components/platform/PlatformChrome';

export const metadata: Metadata = { robots: { index: false } };

export default function EdxLayout({ children }: { children: ReactNode }) {
  return <PlatformChrome>{children}</PlatformChrome>;
}
