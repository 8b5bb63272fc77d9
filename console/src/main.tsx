/** The console's entry: its styles, link handling and the app, rendered into the shell's `#app`. */
import 'uplot/dist/uPlot.min.css';
import './console.css';
import { render } from 'preact';
import { App } from './app';
import { interceptLinks } from './router';

const root = document.getElementById('app')!;
// NB: the shell's <noscript> note goes; Preact would otherwise keep it beside the app
root.replaceChildren();
interceptLinks(document);
render(<App />, root);
