// answer-links.js: added by `mirac view` at the end of a report page's body (/report),
// after its tables. Moves the cell's text into the link, so the page reads as before, numbers
// now underlined. The nodes are moved, not parsed again, and the link stays on this server
// ('/?' and the query the report wrote, html-escaped, into data-answers), whatever the cell's text.
for (const cell of document.querySelectorAll('td[data-answers]')) {
  const link = document.createElement('a');
  link.href = '/?' + cell.dataset.answers;
  link.title = 'the answers behind this number, in mirac view';
  link.append(...cell.childNodes);
  cell.append(link);
}
