/** A form control and its label. NB: the label is tied by `for`, not by wrapping, so its name is the label alone. */
import type { ComponentChildren } from 'preact';

export function Field({ id, label, children }: { id: string; label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
    </div>
  );
}
