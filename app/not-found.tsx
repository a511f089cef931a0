import { NotFoundMessage } from '@/components/ui/NotFoundMessage';

export default function NotFound() {
  return <NotFoundMessage />;
}
