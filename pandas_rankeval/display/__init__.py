"""How results look: tables as text, HTML, Markdown, JSON and CSV with their footers, and plots."""
