"""What a support engineer is handed: a saved report judged again, two reports compared, an issue triaged."""
