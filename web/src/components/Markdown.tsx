import type { JSX } from 'preact';
import type { Block, Inline } from '../lib/markdown.js';
import { parseMarkdown } from '../lib/markdown.js';

/** A README, rendered from the parsed tree as elements and text nodes only (no innerHTML). */
export function Markdown({ source }: { source: string }) {
  return <div class="markdown">{parseMarkdown(source).map(block)}</div>;
}

function block(node: Block, key: number): JSX.Element {
  switch (node.kind) {
    case 'heading': {
      const Tag = `h${Math.min(node.level + 1, 6)}` as 'h2';
      return <Tag key={key}>{node.children.map(inline)}</Tag>;
    }
    case 'paragraph':
      return <p key={key}>{node.children.map(inline)}</p>;
    case 'code':
      return (
        <pre key={key} class="code">
          <code>{node.text}</code>
        </pre>
      );
    case 'list': {
      const items = node.items.map((item, index) => <li key={index}>{item.map(inline)}</li>);
      return node.ordered ? <ol key={key}>{items}</ol> : <ul key={key}>{items}</ul>;
    }
    case 'quote':
      return <blockquote key={key}>{node.children.map(block)}</blockquote>;
    case 'rule':
      return <hr key={key} />;
  }
}

function inline(node: Inline, key: number): JSX.Element | string {
  switch (node.kind) {
    case 'text':
      return node.text;
    case 'code':
      return <code key={key}>{node.text}</code>;
    case 'strong':
      return <strong key={key}>{node.children.map(inline)}</strong>;
    case 'em':
      return <em key={key}>{node.children.map(inline)}</em>;
    case 'link':
      return (
        <a key={key} href={node.href} target="_blank" rel="noopener noreferrer">
          {node.children.map(inline)}
        </a>
      );
  }
}
