/** A one-line message bar that renders nothing without text (every panel's success, info and error line). */
import { MessageBar, MessageBarBody } from '@fluentui/react-components';

export function Notice({ intent, text }: { intent: 'success' | 'info' | 'warning' | 'error'; text: string | null }) {
  if (!text) return null;
  return (
    <MessageBar intent={intent}>
      <MessageBarBody>{text}</MessageBarBody>
    </MessageBar>
  );
}
