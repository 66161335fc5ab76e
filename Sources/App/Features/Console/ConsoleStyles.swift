/// `/admin/console.css`: the console's only style sheet (the page's policy forbids inline
/// styles). Contrast of text on its background is at least 4.5:1 everywhere.
enum ConsoleStyles {
    static let css = """
        :root { color-scheme: light; --ink: #1b1f24; --muted: #4a5360; --line: #c9d1db; --accent: #0b57d0; --danger: #a50e0e; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Apple SD Gothic Neo", sans-serif; color: var(--ink); background: #fff; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px; }
        header { background: #f3f5f8; border-bottom: 1px solid var(--line); padding: 8px 16px; }
        .brand { font-weight: 700; margin: 0 0 4px; }
        nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; }
        nav form { margin-top: 4px; } .who { color: var(--muted); }
        main { padding: 16px; max-width: 1200px; }
        a { color: var(--accent); } a:focus, button:focus, input:focus, select:focus, textarea:focus { outline: 3px solid #f4b400; outline-offset: 1px; }
        table { border-collapse: collapse; width: 100%; } caption { text-align: left; font-weight: 600; padding: 4px 0; }
        th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
        .scroll { overflow-x: auto; }
        label { display: block; font-weight: 600; } input, select, textarea { font: inherit; padding: 6px; min-width: 14em; max-width: 100%; }
        textarea { width: 100%; min-height: 6em; }
        button { font: inherit; padding: 6px 12px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; }
        button.danger { background: var(--danger); border-color: var(--danger); }
        form.inline { display: inline; } form.filters p { display: inline-block; margin-right: 12px; vertical-align: bottom; }
        .notice { background: #e6f4ea; border: 1px solid #1e7e34; padding: 8px; } .error { background: #fce8e6; border: 1px solid var(--danger); padding: 8px; }
        .secret { font-family: ui-monospace, monospace; background: #fff8e1; border: 1px solid #b26a00; padding: 8px; word-break: break-all; }
        .cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 12px; }
        .card { border: 1px solid var(--line); border-radius: 6px; padding: 10px; }
        .chart svg { width: 100%; height: auto; } .chart .bar { fill: var(--accent); } .chart .axis { stroke: var(--muted); } .chart text { fill: var(--muted); font-size: 10px; }
        .hidden-tag { color: var(--danger); font-weight: 600; } pre { white-space: pre-wrap; word-break: break-all; font-size: 12px; margin: 0; }
        """
}
