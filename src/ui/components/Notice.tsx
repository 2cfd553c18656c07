/** A one-line message bar that renders nothing without text (every panel's success, info and error line); dismissable where `onDismiss` is given. */
import { Button, MessageBar, MessageBarActions, MessageBarBody } from '@fluentui/react-components';

export function Notice({ intent, text, onDismiss }: { intent: 'success' | 'info' | 'warning' | 'error'; text: string | null; onDismiss?: () => void }) {
  if (!text) return null;
  return (
    <MessageBar intent={intent}>
      <MessageBarBody>{text}</MessageBarBody>
      {onDismiss ? (
        <MessageBarActions
          containerAction={
            <Button appearance="transparent" size="small" onClick={onDismiss}>
              Dismiss
            </Button>
          }
        />
      ) : null}
    </MessageBar>
  );
}
