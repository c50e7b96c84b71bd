#!/usr/bin/env python3
"""scripts/check_layers.py — checks that the files of src/ include only what their layer allows.

    scripts/check_layers.py [--config scripts/layers.conf] [--src src] [--doc ARCHITECTURE.md]
                            [--graph]

The rules are in scripts/layers.conf (its header explains them). Prints one line per violation,
`FILE:LINE: includes "X": why`, and exits 1 if there is any; 0 otherwise. Temporary allowances
that the code no longer needs are listed as notes (not failures), so they can be removed.
--doc also checks that the module table of ARCHITECTURE.md states the same rules.
--graph prints the module graph as it is (module -> modules it includes) and exits.
Run by CTest as layers.check (label unit); layers.checker_fails tests it on tests/layers/.
Standard library only (Python 3.7+).
"""
import argparse
import fnmatch
import os
import re
import sys

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
SOURCE_EXTS = ('.c', '.h', '.cc', '.cpp', '.hpp', '.def', '.inc', '.cu', '.cuh')


class Config:
    def __init__(self):
        self.modules = {}      # name -> list of allowed items
        self.file_rules = []   # (glob, allowed items)
        self.closed = []       # globs
        self.system = []       # (prefixes, where items)
        self.temporary = {}    # (file, include) -> config line number
        self.path = ''


def parse_config(path):
    cfg = Config()
    cfg.path = path
    with open(path, encoding='utf-8') as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.split('#', 1)[0].strip()
            if not line:
                continue
            word, _, rest = line.partition(' ')
            rest = rest.strip()

            def bad(why):
                sys.exit(f'{path}:{lineno}: {why}: {raw.rstrip()}')

            if word in ('module', 'file', 'system'):
                head, colon, tail = rest.partition(':')
                if not colon:
                    bad('expected NAME: ALLOWED...')
                items = tail.split()
                if word == 'module':
                    name = head.strip()
                    if not name or '/' in name or name in cfg.modules:
                        bad('bad or repeated module name')
                    cfg.modules[name] = items
                elif word == 'file':
                    cfg.file_rules.append((head.strip(), items))
                else:
                    cfg.system.append((head.split(), items))
            elif word == 'closed':
                cfg.closed.append(rest)
            elif word == 'temporary':
                parts = rest.split()
                if len(parts) != 2:
                    bad('expected temporary FILE INCLUDE')
                cfg.temporary[(parts[0], parts[1])] = lineno
            else:
                bad(f'unknown keyword {word!r}')
    return cfg


def module_of(rel):
    return rel.split('/', 1)[0] if '/' in rel else ''


def allowed_by(items, own, target):
    """Whether `target` (a path under src/) is allowed by `items` for a file of module `own`."""
    mod = module_of(target)
    if mod == own:
        return True
    for item in items:
        if '/' in item or '*' in item:
            if fnmatch.fnmatchcase(target, item):
                return True
        elif item == mod:
            return True
    return False


def where_allows(items, rel):
    return any(fnmatch.fnmatchcase(rel, i) if ('/' in i or '*' in i) else module_of(rel) == i
               for i in items)


def scan(src):
    """Returns {rel: [(line, kind, name, resolved)]}: kind 'local' (resolved = path under src/)
    or 'system' (resolved = the header's name)."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith('.'))
        for fn in sorted(filenames):
            if not fn.endswith(SOURCE_EXTS):
                continue
            full = os.path.join(dirpath, fn)
            rel = os.path.relpath(full, src).replace(os.sep, '/')
            incs = []
            with open(full, encoding='utf-8', errors='replace') as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE_RE.match(line)
                    if not m:
                        continue
                    quote, name = m.groups()
                    if quote == '"':
                        beside = os.path.normpath(os.path.join(os.path.dirname(rel), name))
                        if os.path.isfile(os.path.join(src, beside)):
                            incs.append((lineno, 'local', name, beside.replace(os.sep, '/')))
                            continue
                        if '/' in name:
                            incs.append((lineno, 'local', name, os.path.normpath(name)))
                            continue
                    incs.append((lineno, 'system', name, name))
            files[rel] = incs
    return files


def spell(kind, name):
    return f'<{name}>' if kind == 'system' else f'"{name}"'


def check(cfg, src):
    files = scan(src)
    errors = []
    used_temporary = set()

    def rule_for(rel):
        for glob, items in cfg.file_rules:
            if fnmatch.fnmatchcase(rel, glob):
                return items, f'file rule {glob}'
        mod = module_of(rel)
        return cfg.modules.get(mod), f'module {mod}'

    def is_temporary(rel, target):
        if (rel, target) in cfg.temporary:
            used_temporary.add((rel, target))
            return True
        return False

    # Every folder of src/ has a place.
    for mod in sorted({module_of(r) for r in files if module_of(r)}):
        if mod not in cfg.modules:
            errors.append(f'{os.path.join(src, mod)}/: module {mod!r} is not declared in '
                          f'{cfg.path}: add a `module {mod}: ...` line stating what it may include')

    # Direct includes against the file's rule.
    for rel, incs in sorted(files.items()):
        items, what = rule_for(rel)
        if items is None:
            continue
        own = module_of(rel)
        for lineno, kind, name, target in incs:
            if kind != 'local' or allowed_by(items, own, target) or is_temporary(rel, target):
                continue
            errors.append(f'{os.path.join(src, rel)}:{lineno}: includes {spell(kind, name)}: '
                          f'{own or "(top level)"} may not include {module_of(target) or target} '
                          f'({what} allows: {" ".join(items) or "only its own files"})')

    # Closed headers: everything they reach obeys their rule.
    def walk(start):
        """Yields (file, line, kind, name, target, chain) for every include reached from start,
        not following temporary allowances."""
        seen = {start}
        stack = [(start, [start])]
        while stack:
            rel, chain = stack.pop()
            for lineno, kind, name, target in files.get(rel, []):
                if kind == 'local' and (rel, target) in cfg.temporary:
                    continue
                yield rel, lineno, kind, name, target, chain
                if kind == 'local' and target in files and target not in seen:
                    seen.add(target)
                    stack.append((target, chain + [target]))

    for rel in sorted(files):
        if not any(fnmatch.fnmatchcase(rel, g) for g in cfg.closed):
            continue
        items, what = rule_for(rel)
        own = module_of(rel)
        for frm, lineno, kind, name, target, chain in walk(rel):
            if frm == rel or kind != 'local' or allowed_by(items, own, target):
                continue
            if is_temporary(frm, target):
                continue
            errors.append(f'{os.path.join(src, frm)}:{lineno}: includes {spell(kind, name)}, '
                          f'reached from {rel} ({" -> ".join(chain)}), which may include only '
                          f'its own files and: {" ".join(items)} ({what}, closed)')

    # Outside headers, transitively.
    for rel in sorted(files):
        reported = set()
        first_line = {}
        for frm, lineno, kind, name, target, chain in walk(rel):
            if frm == rel:
                first_line[target] = lineno
            if kind != 'system':
                continue
            for prefixes, where in cfg.system:
                if not any(name.startswith(p) for p in prefixes) or where_allows(where, rel):
                    continue
                if (name, tuple(prefixes)) in reported:
                    continue
                reported.add((name, tuple(prefixes)))
                allowed = ' '.join(where)
                if frm == rel:
                    errors.append(f'{os.path.join(src, rel)}:{lineno}: includes <{name}>, '
                                  f'which only {allowed} may include')
                else:
                    step = chain[1] if len(chain) > 1 else frm
                    errors.append(f'{os.path.join(src, rel)}:{first_line.get(step, "?")}: reaches '
                                  f'<{name}> (only {allowed} may include it) through '
                                  f'{" -> ".join(chain[1:])} ({os.path.join(src, frm)}:{lineno})')
    stale = sorted(set(cfg.temporary) - used_temporary)
    return errors, stale


LOWER = 'ult matching copy datatype devptr_cache pmi net shm settings handles base'.split()


def check_doc(cfg, doc):
    """The module table of `doc` (between the layers-table markers) against the config: every
    module has a row, and each row's `May include` cell names what the config allows ("layers 0-1"
    stands for LOWER, "nothing" for no module; a parenthesis is a remark)."""
    errors = []
    with open(doc, encoding='utf-8') as f:
        text = f.read()
    m = re.search(r'<!-- layers-table: begin.*?-->(.*?)<!-- layers-table: end -->', text, re.S)
    if not m:
        return [f'{doc}: no layers-table markers']
    seen = set()
    for row in m.group(1).splitlines():
        cells = [c.strip() for c in row.strip().strip('|').split('|')]
        if len(cells) != 4 or not cells[1].startswith('`'):
            continue
        mods = re.findall(r'`([^`]+)`', cells[1])
        may = re.sub(r'\(.*?\)', ' ', cells[3]).replace('`', ' ').replace('+', ' ')
        may = may.replace(',', ' ').replace('layers 0-1', ' '.join(LOWER)).split()
        may = set() if may == ['nothing'] else set(may)
        for mod in mods:
            seen.add(mod)
            if mod not in cfg.modules:
                errors.append(f'{doc}: module {mod!r} is not in {cfg.path}')
            elif set(cfg.modules[mod]) != may:
                errors.append(f'{doc}: the row of {mod!r} says it may include '
                              f'{" ".join(sorted(may)) or "nothing"}; {cfg.path} says '
                              f'{" ".join(sorted(cfg.modules[mod])) or "nothing"}')
    for mod in cfg.modules:
        if mod not in seen:
            errors.append(f'{doc}: no row for module {mod!r} of {cfg.path}')
    return errors


def graph(src):
    edges = {}
    for rel, incs in scan(src).items():
        for _, kind, name, target in incs:
            if kind == 'local' and module_of(target) and module_of(target) != module_of(rel):
                edges.setdefault(module_of(rel), set()).add(module_of(target))
    for mod in sorted(edges):
        print(f'{mod} -> {" ".join(sorted(edges[mod]))}')


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--config', default=os.path.join(here, 'layers.conf'))
    ap.add_argument('--src', default=os.path.join(here, '..', 'src'))
    ap.add_argument('--graph', action='store_true', help='print the current module graph')
    ap.add_argument('--doc', help='also check the module table of this file (ARCHITECTURE.md)')
    args = ap.parse_args()
    src = os.path.relpath(os.path.normpath(args.src))
    if args.graph:
        graph(src)
        return 0
    cfg = parse_config(args.config)
    errors, stale = check(cfg, src)
    if args.doc:
        errors += check_doc(cfg, args.doc)
    for (rel, inc) in stale:
        print(f'note: {args.config}:{cfg.temporary[(rel, inc)]}: temporary allowance '
              f'{rel} -> {inc} is no longer needed: remove it')
    for e in errors:
        print(e)
    if errors:
        print(f'check_layers: {len(errors)} violation(s) of the layers '
              f'(rules: {args.config}; see ARCHITECTURE.md)')
        return 1
    print(f'check_layers: {len(cfg.temporary) - len(stale)} temporary allowance(s) in use, '
          'no other violation')
    return 0


if __name__ == '__main__':
    sys.exit(main())
