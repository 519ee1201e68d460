import '@mantine/core/styles.css';
import '@xyflow/react/dist/style.css';
import { Alert, createTheme, MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { loadConfig, restoreSession } from './api';

// autoContrast: filled badges and buttons pick black or white text by luminance (axe colour contrast)
const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  defaultRadius: 'sm',
  autoContrast: true,
  // black text from the luminance where it contrasts better than white (≈ 0.18)
  luminanceThreshold: 0.18,
  components: {
    // light alerts keep their tinted background but body-coloured text
    Alert: Alert.extend({
      styles: {
        title: { color: 'var(--mantine-color-text)' },
        message: { color: 'var(--mantine-color-text)' },
      },
    }),
  },
});

void loadConfig().then(() => {
  restoreSession();
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <MantineProvider theme={theme}>
        <App />
      </MantineProvider>
    </StrictMode>,
  );
});
