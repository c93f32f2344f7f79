"""The plumbing the other folders import: the one list of chapters, the stamps, the chapters' facts."""
