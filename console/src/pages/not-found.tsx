/** A console address that names no page. */
import type { PageProps } from '../app';
import { Page } from '../components/page';
import { BASE } from '../router';

export function NotFound({ route }: PageProps) {
  return (
    <Page title="Page not found">
      <p>
        The console has no page at <code>{route.path}</code>. <a href={BASE}>Go to the overview</a>.
      </p>
    </Page>
  );
}
