/**
 * Service text that tries to become markdown syntax (the strings of issue 26 among them), and a
 * CommonMark + GFM renderer (markdown-it: the CommonMark spec's parser, GFM tables and
 * strikethrough, raw HTML passed through as GitHub allows it) to show what a reader would get.
 */
import MarkdownIt from 'markdown-it';

export const HOSTILE_MD = {
  backtick: 'ci` [Click to re-run](https://evil.example/rerun) `x',
  link: '[Click to re-run](https://evil.example/rerun)',
  image: '![status](https://evil.example/pixel.png)',
  reference: '[re-run][1] [1]: https://evil.example/ref',
  autolink: '<https://evil.example/auto>',
  html: '<img src=x onerror=alert(1)><a href="https://evil.example/a">a</a><details open>',
  entity: '&lt;b&gt; &#x3C;img src=x&#x3E;',
  emphasis: '**bold** __bold__ *em* _em_ ~~struck~~ ~one~',
  code: '``code`` `x`',
  pipe: 'a | b || c',
  backslash: 'a\\|b \\[x\\](https://evil.example/esc)',
};

/** Starts of lines that would make a block (a heading, a list, a quote, a rule, a fence, a table). */
export const HOSTILE_LINE_STARTS = [
  '# Heading',
  '- item',
  '+ item',
  '* item',
  '1. item',
  '3) item',
  '> quote',
  '---',
  '===',
  '```',
  '~~~',
  '| a | b |',
];

export function renderMarkdown(md: string, linkify = false): string {
  return new MarkdownIt({ html: true, linkify }).render(md);
}

/**
 * The elements of rendered HTML outside `allowed` (the structure the writer built itself), each
 * with its attributes and text, e.g. `<a href="https://evil.example/rerun">Click to re-run</a>`.
 */
export function foreignElements(html: string, allowed: readonly string[]): string[] {
  const found: string[] = [];
  for (const m of html.matchAll(/<([a-zA-Z][\w-]*)([^>]*)>([^<]*)/g)) {
    const [, tag = '', attrs = '', text = ''] = m;
    if (!allowed.includes(tag.toLowerCase())) found.push(`<${tag}${attrs}>${text}`);
  }
  return found;
}
