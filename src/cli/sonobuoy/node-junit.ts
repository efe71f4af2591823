/**
 * JUnit for one node of a fleet. `sonobuoy results` shows it per node, and the node's name also travels
 * inside the file (testsuite `hostname` and a `nodeName` property), so a file copied out of the tarball
 * still says where it came from. When the run cannot start, the file holds one failing test case whose
 * message says what to fix: Sonobuoy reads status only from the JUnit, and an empty file reads as a pass.
 */
import { TOOL_VERSION } from '../version.js';

export const SETUP_CASE_NAME = 'SETUP cri-conform can run on this node';
export const SETUP_CLASSNAME = 'cri-conform.setup';

/** Adds the node to every <testsuite> of a JUnit document rendered by src/report/junit.ts. */
export function withNodeName(xml: string, nodeName: string): string {
  const node = escapeXml(nodeName);
  return xml
    .replace(/<testsuite\b(?![^>]*\bhostname=)/g, `<testsuite hostname="${node}"`)
    .replace(
      /(<testsuite\b[^>]*>\s*)<properties>/g,
      `$1<properties>\n      <property name="nodeName" value="${node}"/>`,
    );
}

/** A whole JUnit document for a run that could not start: one failure that says what to fix. */
export function setupFailureJUnit(nodeName: string, whatToFix: string, startedAt: Date): string {
  const node = escapeXml(nodeName);
  const message = escapeXml(whatToFix);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="cri-conform" tests="1" failures="1" errors="0">',
    `  <testsuite name="setup" hostname="${node}" timestamp="${startedAt.toISOString()}" time="0" tests="1" failures="1" errors="0" skipped="0">`,
    '    <properties>',
    `      <property name="nodeName" value="${node}"/>`,
    `      <property name="toolVersion" value="${escapeXml(TOOL_VERSION)}"/>`,
    '    </properties>',
    `    <testcase classname="${SETUP_CLASSNAME}" name="${SETUP_CASE_NAME}" time="0">`,
    `      <failure message="${message}" type="failure">${message}</failure>`,
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: removing what XML 1.0 cannot carry is the point
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

function escapeXml(s: string): string {
  return s.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}
