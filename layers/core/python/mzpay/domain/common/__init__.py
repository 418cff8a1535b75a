"""What every rule stands on: ids, the clock, errors and their catalogue, the strict request model
and the entity base, bounds of strings, card data in text, the NIB, network address rules, uploaded
files and evidence, page tokens."""
