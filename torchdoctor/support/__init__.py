"""What a support engineer is handed: a saved report judged again, two reports compared, an issue triaged.

- ``rejudge``: a saved report's facts judged with today's checks (``check --from``).
- ``ticket``: the facts a support ticket carries beyond the verdicts (``torchdoctor report``).
- ``diff``: what differs between two reports that matters for training.
- ``triage``, ``triage_render``: the environment an issue shows, judged; the errors it quotes, explained.
"""
