#!/usr/bin/python3
"""Every relative link in README.md and docs/*.md names a file that exists, and its
#anchor (if any) a heading of that file, spelled as GitHub spells heading anchors; and
the README's map names every first- and second-level folder that git tracks files in
(as `folder/`; skipped where git or the repository is missing).

usage: check_links.py SOURCE_ROOT

Links inside fenced code blocks and `inline code` are not links; http(s) and mailto
links are not checked. Prints one line per broken link and exits 1 if there is one.
"""
import os
import re
import subprocess
import sys

LINK = re.compile(r'(?<!!)\[[^\]]*\]\(([^)\s]+)\)')


def strip_code(text):
    """The text with fenced blocks and inline code blanked (line numbers kept)."""
    out, fenced = [], False
    for line in text.split('\n'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
            out.append('')
        elif fenced:
            out.append('')
        else:
            out.append(re.sub(r'`[^`]*`', '``', line))
    return out


def anchors(path):
    """GitHub's anchors for the headings of a markdown file."""
    seen, result = {}, set()
    fenced = False
    for line in open(path, encoding='utf-8'):
        if line.lstrip().startswith('```'):
            fenced = not fenced
        if fenced:
            continue
        m = re.match(r'#{1,6}\s+(.*?)\s*#*\s*$', line)
        if not m:
            continue
        slug = re.sub(r'[^\w\- ]', '', m.group(1).lower()).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else '%s-%d' % (slug, n))
    return result


def tracked_folders(root):
    """Folders of depth 1 and 2 holding files git tracks, or None without git."""
    try:
        out = subprocess.run(['git', '-C', root, 'ls-files'], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    folders = set()
    for f in out.split('\n'):
        parts = f.split('/')[:-1]
        for depth in (1, 2):
            if len(parts) >= depth:
                folders.add('/'.join(parts[:depth]))
    return folders


def main():
    root = sys.argv[1]
    docs = os.path.join(root, 'docs')
    files = [os.path.join(root, 'README.md')] + sorted(
        os.path.join(docs, f) for f in os.listdir(docs) if f.endswith('.md'))
    bad = 0
    for path in files:
        text = open(path, encoding='utf-8').read()
        for lineno, line in enumerate(strip_code(text), 1):
            for target in LINK.findall(line):
                if re.match(r'[a-z]+:', target):
                    continue
                file_part, _, anchor = target.partition('#')
                dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                where = '%s:%d: %s' % (os.path.relpath(path, root), lineno, target)
                if not os.path.realpath(dest).startswith(os.path.realpath(root) + os.sep):
                    print('%s: outside the repository' % where)
                    bad += 1
                elif not os.path.exists(dest):
                    print('%s: no such file' % where)
                    bad += 1
                elif anchor and (not dest.endswith('.md') or anchor not in anchors(dest)):
                    print('%s: no heading #%s' % (where, anchor))
                    bad += 1
    readme = open(files[0], encoding='utf-8').read()
    folders = tracked_folders(root)
    for d in sorted(folders or ()):
        if '`%s/`' % d not in readme:
            print('README.md: the repository map lacks `%s/`' % d)
            bad += 1
    print('docs links: %d files, %s folders, %d broken' %
          (len(files), len(folders) if folders is not None else 'no git:', bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
