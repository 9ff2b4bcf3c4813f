package org.cyverse.mesa.egress.injector.budget;

/** What {@link CredentialBudgets#admit} answers: a ticket to go on with, or the limit that stops the request. */
public sealed interface BudgetOutcome permits BudgetTicket, BudgetRefusal {}
